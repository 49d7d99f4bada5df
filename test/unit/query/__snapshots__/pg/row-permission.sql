select "t1"."id" as "c0", "l2"."v" as "c1", (
  select json_build_array("l4"."v") as "v"
  from "authors" as "t3"
  left join lateral (
    select coalesce(json_agg("x6"."v"
        order by "x6"."s0"), '[]') as "v"
    from (
      select json_build_array("t5"."title") as "v", "t5"."id" as "s0"
      from "articles" as "t5"
      where "t5"."author" = "t3"."id" and "t5"."status" = ?
      order by "t5"."id"
      limit ?) as "x6") as "l4" on true
  where "t3"."id" = "t1"."author") as "c2"
from "articles" as "t1"
left join lateral (
  select coalesce(json_agg("x8"."v"
      order by "x8"."s0"), '[]') as "v"
  from (
    select json_build_array("t7"."text") as "v", "t7"."id" as "s0"
    from "comments" as "t7"
    where "t7"."article" = "t1"."id" and ("t7"."text" is not null and "t7"."text" <> '')
    order by "t7"."id"
    limit ?) as "x8") as "l2" on true
where "t1"."status" = ?
order by "t1"."id"
limit ?
-- values: ["published",100,100,"published",100]
