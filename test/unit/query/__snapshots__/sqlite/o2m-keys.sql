select (
  select coalesce(json_group_array("x3"."v"
      order by "x3"."s0"), json_array()) as "v"
  from (
    select "t2"."id" as "v", "t2"."id" as "s0"
    from "comments" as "t2"
    where "t2"."article" = "t1"."id"
    order by "t2"."id"
    limit ?) as "x3") as "c0"
from "articles" as "t1"
order by "t1"."id"
limit ?
-- values: [100,100]
