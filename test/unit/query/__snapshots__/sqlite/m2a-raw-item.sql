select (
  select coalesce(json_group_array(json("x3"."v")
      order by "x3"."s0" nulls last), json_array()) as "v"
  from (
    select json_array("t2"."item") as "v", "t2"."sort" as "s0"
    from "articles_sections" as "t2"
    where "t2"."articles_id" = "t1"."id"
    order by "t2"."sort" nulls last
    limit ?) as "x3") as "c0"
from "articles" as "t1"
order by "t1"."id"
limit ?
-- values: [100,100]
