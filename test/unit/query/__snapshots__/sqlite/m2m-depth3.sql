select "t1"."id" as "c0", (
  select coalesce(json_group_array(json("x3"."v")
      order by "x3"."s0"), json_array()) as "v"
  from (
    select json_array((
        select coalesce(json_group_array(json("x5"."v")
            order by "x5"."s0"), json_array()) as "v"
        from (
          select json_array((
              select json_array("t6"."name") as "v"
              from "categories" as "t6"
              where "t6"."id" = "t4"."categories_id")) as "v", "t4"."id" as "s0"
          from "articles_categories" as "t4"
          where "t4"."articles_id" = "t2"."id"
          order by "t4"."id"
          limit ?) as "x5")) as "v", "t2"."id" as "s0"
    from "articles" as "t2"
    where "t2"."author" = "t1"."id"
    order by "t2"."id"
    limit ?) as "x3") as "c1"
from "authors" as "t1"
order by "t1"."id"
limit ?
-- values: [100,100,100]
