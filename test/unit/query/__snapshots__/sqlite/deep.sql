select "t1"."id" as "c0", (
  select coalesce(json_group_array(json("x3"."v")
      order by "x3"."s0" desc), json_array()) as "v"
  from (
    select json_array("t2"."text") as "v", "t2"."id" as "s0"
    from "comments" as "t2"
    where "t2"."article" = "t1"."id" and "t2"."text" glob ?
    order by "t2"."id" desc
    limit ?
    offset ?) as "x3") as "c1", (
  select json_array("t4"."name") as "v"
  from "authors" as "t4"
  where "t4"."id" = "t1"."author" and "t4"."name" <> ?) as "c2"
from "articles" as "t1"
order by "t1"."id"
limit ?
-- values: ["*x*",2,1,"Bob",100]
