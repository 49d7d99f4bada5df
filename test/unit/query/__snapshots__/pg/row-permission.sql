select "t1"."id" as "c0", "l2"."v" as "c1", "l3"."v" as "c2"
from "articles" as "t1"
left join lateral (
  select coalesce(json_agg("x5"."v"
      order by "x5"."s0"), '[]') as "v"
  from (
    select json_build_array("t4"."text") as "v", "t4"."id" as "s0"
    from "comments" as "t4"
    where "t4"."article" = "t1"."id" and ("t4"."text" is not null and "t4"."text" <> '')
    order by "t4"."id"
    limit ?) as "x5") as "l2" on true
left join lateral (
  select json_build_array("l7"."v") as "v"
  from "authors" as "t6"
  left join lateral (
    select coalesce(json_agg("x9"."v"
        order by "x9"."s0"), '[]') as "v"
    from (
      select json_build_array("t8"."title") as "v", "t8"."id" as "s0"
      from "articles" as "t8"
      where "t8"."author" = "t6"."id" and "t8"."status" = ?
      order by "t8"."id"
      limit ?) as "x9") as "l7" on true
  where "t6"."id" = "t1"."author") as "l3" on true
where "t1"."status" = ?
order by "t1"."id"
limit ?
-- values: [100,"published",100,"published",100]
