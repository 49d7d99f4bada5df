select "t1"."id" as "c0", "l2"."v" as "c1", (
  select json_build_array("t3"."name") as "v"
  from "authors" as "t3"
  where "t3"."id" = "t1"."author" and "t3"."name" <> ?) as "c2"
from "articles" as "t1"
left join lateral (
  select coalesce(json_agg("x5"."v"
      order by "x5"."s0" desc), '[]') as "v"
  from (
    select json_build_array("t4"."text") as "v", "t4"."id" as "s0"
    from "comments" as "t4"
    where "t4"."article" = "t1"."id" and "t4"."text" like ?
    order by "t4"."id" desc
    limit ?
    offset ?) as "x5") as "l2" on true
order by "t1"."id"
limit ?
-- values: ["Bob","%x%",2,1,100]
