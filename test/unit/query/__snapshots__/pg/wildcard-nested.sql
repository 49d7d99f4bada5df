select "t1"."id" as "c0", (
  select json_build_array("t2"."id", "t2"."status", "t2"."title", "t2"."body", "t2"."views", cast("t2"."rating" as text), cast("t2"."big" as text), "t2"."featured", cast("t2"."published_on" as text), cast("t2"."published" as text), cast("t2"."created" as text), cast("t2"."starts" as text), cast("t2"."data" as text), "t2"."tags", "t2"."uid", "t2"."secret", "t2"."author", "l3"."v", "l4"."v", "l5"."v") as "v"
  from "articles" as "t2"
  left join lateral (
    select coalesce(json_agg("x7"."v"
        order by "x7"."s0"), '[]') as "v"
    from (
      select "t6"."id" as "v", "t6"."id" as "s0"
      from "comments" as "t6"
      where "t6"."article" = "t2"."id"
      order by "t6"."id"
      limit ?) as "x7") as "l3" on true
  left join lateral (
    select coalesce(json_agg("x9"."v"
        order by "x9"."s0"), '[]') as "v"
    from (
      select "t8"."id" as "v", "t8"."id" as "s0"
      from "articles_categories" as "t8"
      where "t8"."articles_id" = "t2"."id"
      order by "t8"."id"
      limit ?) as "x9") as "l4" on true
  left join lateral (
    select coalesce(json_agg("x11"."v"
        order by "x11"."s0"), '[]') as "v"
    from (
      select "t10"."id" as "v", "t10"."sort" as "s0"
      from "articles_sections" as "t10"
      where "t10"."articles_id" = "t2"."id"
      order by "t10"."sort"
      limit ?) as "x11") as "l5" on true
  where "t2"."id" = "t1"."article") as "c1", (
  select json_build_array("t12"."id", "t12"."name", "t12"."email", "t12"."country", "l13"."v") as "v"
  from "authors" as "t12"
  left join lateral (
    select coalesce(json_agg("x15"."v"
        order by "x15"."s0"), '[]') as "v"
    from (
      select "t14"."id" as "v", "t14"."id" as "s0"
      from "articles" as "t14"
      where "t14"."author" = "t12"."id"
      order by "t14"."id"
      limit ?) as "x15") as "l13" on true
  where "t12"."id" = "t1"."author") as "c2", "t1"."text" as "c3", "t1"."sort" as "c4"
from "comments" as "t1"
order by "t1"."id"
limit ?
-- values: [100,100,100,100,100]
