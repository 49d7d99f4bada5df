select (
  select coalesce(json_group_array(json("x3"."v")
      order by "x3"."s0"), json_array()) as "v"
  from (
    select json_array((
        select coalesce(json_group_array(json("x5"."v")
            order by "x5"."s0" nulls last), json_array()) as "v"
        from (
          select json_array(json_array("t4"."collection", "t4"."item", case when "t4"."collection" = ? then (
                select json_array("t6"."title")
                from "headings" as "t6"
                where "t4"."collection" = ? and "t6"."id" = "t4"."item") end)) as "v", "t4"."sort" as "s0"
          from "articles_sections" as "t4"
          where "t4"."articles_id" = "t2"."id"
          order by "t4"."sort" nulls last
          limit ?) as "x5")) as "v", "t2"."id" as "s0"
    from "articles" as "t2"
    where "t2"."author" = "t1"."id"
    order by "t2"."id"
    limit ?) as "x3") as "c0"
from "authors" as "t1"
order by "t1"."id"
limit ?
-- values: ["headings","headings",100,100,100]
