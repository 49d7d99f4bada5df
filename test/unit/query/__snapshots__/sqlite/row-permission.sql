select "t1"."id" as "c0", (
  select coalesce(json_group_array(json("x3"."v")
      order by "x3"."s0"), json_array()) as "v"
  from (
    select json_array("t2"."text") as "v", "t2"."id" as "s0"
    from "comments" as "t2"
    where "t2"."article" = "t1"."id" and ("t2"."text" is not null and "t2"."text" <> '')
    order by "t2"."id"
    limit ?) as "x3") as "c1", (
  select json_array((
      select coalesce(json_group_array(json("x6"."v")
          order by "x6"."s0"), json_array()) as "v"
      from (
        select json_array("t5"."title") as "v", "t5"."id" as "s0"
        from "articles" as "t5"
        where "t5"."author" = "t4"."id" and "t5"."status" = ?
        order by "t5"."id"
        limit ?) as "x6")) as "v"
  from "authors" as "t4"
  where "t4"."id" = "t1"."author") as "c2"
from "articles" as "t1"
where "t1"."status" = ?
order by "t1"."id"
limit ?
-- values: [100,"published",100,"published",100]
