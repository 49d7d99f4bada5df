select (
  select coalesce(json_group_array(json("x3"."v")
      order by "x3"."s0"), json_array()) as "v"
  from (
    select json_array((
        select json_array("t4"."name") as "v"
        from "categories" as "t4"
        where "t4"."id" = "t2"."categories_id" and "t4"."name" = ?)) as "v", "t2"."id" as "s0"
    from "articles_categories" as "t2"
    where "t2"."articles_id" = "t1"."id"
    order by "t2"."id"
    limit ?) as "x3") as "c0"
from "articles" as "t1"
order by "t1"."id"
limit ?
-- values: ["news",5,100]
