select "t1"."id" as "c0", (
  select coalesce(json_group_array(json("x3"."v")
      order by "x3"."s0" nulls last), json_array()) as "v"
  from (
    select json_array("t2"."collection", json_array("t2"."collection", "t2"."item", case when "t2"."collection" = ? then (
          select json_array("t4"."title")
          from "headings" as "t4"
          where "t2"."collection" = ? and "t4"."id" = "t2"."item") when "t2"."collection" = ? then (
          select json_array("t5"."body")
          from "texts" as "t5"
          where "t2"."collection" = ? and "t5"."id" = "t2"."item") end)) as "v", "t2"."sort" as "s0"
    from "articles_sections" as "t2"
    where "t2"."articles_id" = "t1"."id"
    order by "t2"."sort" nulls last
    limit ?) as "x3") as "c1"
from "articles" as "t1"
order by "t1"."id"
limit ?
-- values: ["headings","headings","texts","texts",100,100]
