select "t1"."id" as "c0", (
  select coalesce(json_group_array(json("x3"."v")
      order by "x3"."s0" nulls last), json_array()) as "v"
  from (
    select json_array("t2"."id") as "v", (
      select "t4"."data"
      from "articles" as "t4"
      where "t4"."id" = "t2"."article") as "s0"
    from "comments" as "t2"
    where "t2"."article" = "t1"."id"
    order by (
      select "t5"."data"
      from "articles" as "t5"
      where "t5"."id" = "t2"."article") nulls last
    limit ?) as "x3") as "c1"
from "articles" as "t1"
order by "t1"."data" desc nulls first
limit ?
-- values: [100,100]
