select "t1"."id" as "c0", "t1"."status" as "c1", "t1"."title" as "c2", "t1"."body" as "c3", "t1"."views" as "c4", cast("t1"."rating" as text) as "c5", cast("t1"."big" as text) as "c6", "t1"."featured" as "c7", cast("t1"."published_on" as text) as "c8", cast("t1"."published" as text) as "c9", cast("t1"."created" as text) as "c10", cast("t1"."starts" as text) as "c11", cast("t1"."data" as text) as "c12", "t1"."tags" as "c13", "t1"."uid" as "c14", "t1"."secret" as "c15", "t1"."author" as "c16", "l2"."v" as "c17", "l3"."v" as "c18", "l4"."v" as "c19"
from "articles" as "t1"
left join lateral (
  select coalesce(json_agg("x6"."v"
      order by "x6"."s0"), '[]') as "v"
  from (
    select "t5"."id" as "v", "t5"."id" as "s0"
    from "comments" as "t5"
    where "t5"."article" = "t1"."id"
    order by "t5"."id"
    limit ?) as "x6") as "l2" on true
left join lateral (
  select coalesce(json_agg("x8"."v"
      order by "x8"."s0"), '[]') as "v"
  from (
    select "t7"."id" as "v", "t7"."id" as "s0"
    from "articles_categories" as "t7"
    where "t7"."articles_id" = "t1"."id"
    order by "t7"."id"
    limit ?) as "x8") as "l3" on true
left join lateral (
  select coalesce(json_agg("x10"."v"
      order by "x10"."s0"), '[]') as "v"
  from (
    select "t9"."id" as "v", "t9"."sort" as "s0"
    from "articles_sections" as "t9"
    where "t9"."articles_id" = "t1"."id"
    order by "t9"."sort"
    limit ?) as "x10") as "l4" on true
order by "t1"."id"
limit ?
-- values: [100,100,100,100]
