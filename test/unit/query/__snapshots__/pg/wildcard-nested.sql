select "t1"."id" as "c0", "l2"."v" as "c1", "l3"."v" as "c2", "t1"."text" as "c3", "t1"."sort" as "c4"
from "comments" as "t1"
left join lateral (
  select json_build_array("t4"."id", "t4"."status", "t4"."title", "t4"."body", "t4"."views", cast("t4"."rating" as text), cast("t4"."big" as text), "t4"."featured", cast("t4"."published_on" as text), cast("t4"."published" as text), cast("t4"."created" as text), cast("t4"."starts" as text), cast("t4"."data" as text), "t4"."tags", "t4"."uid", "t4"."secret", "t4"."author", "l5"."v", "l6"."v", "l7"."v") as "v"
  from "articles" as "t4"
  left join lateral (
    select coalesce(json_agg("x9"."v"
        order by "x9"."s0"), '[]') as "v"
    from (
      select "t8"."id" as "v", "t8"."id" as "s0"
      from "comments" as "t8"
      where "t8"."article" = "t4"."id"
      order by "t8"."id"
      limit ?) as "x9") as "l5" on true
  left join lateral (
    select coalesce(json_agg("x11"."v"
        order by "x11"."s0"), '[]') as "v"
    from (
      select "t10"."id" as "v", "t10"."id" as "s0"
      from "articles_categories" as "t10"
      where "t10"."articles_id" = "t4"."id"
      order by "t10"."id"
      limit ?) as "x11") as "l6" on true
  left join lateral (
    select coalesce(json_agg("x13"."v"
        order by "x13"."s0"), '[]') as "v"
    from (
      select "t12"."id" as "v", "t12"."sort" as "s0"
      from "articles_sections" as "t12"
      where "t12"."articles_id" = "t4"."id"
      order by "t12"."sort"
      limit ?) as "x13") as "l7" on true
  where "t4"."id" = "t1"."article") as "l2" on true
left join lateral (
  select json_build_array("t14"."id", "t14"."name", "t14"."email", "t14"."country", "l15"."v") as "v"
  from "authors" as "t14"
  left join lateral (
    select coalesce(json_agg("x17"."v"
        order by "x17"."s0"), '[]') as "v"
    from (
      select "t16"."id" as "v", "t16"."id" as "s0"
      from "articles" as "t16"
      where "t16"."author" = "t14"."id"
      order by "t16"."id"
      limit ?) as "x17") as "l15" on true
  where "t14"."id" = "t1"."author") as "l3" on true
order by "t1"."id"
limit ?
-- values: [100,100,100,100,100]
