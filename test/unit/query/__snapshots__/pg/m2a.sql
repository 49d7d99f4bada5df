select "t1"."id" as "c0", "l2"."v" as "c1"
from "articles" as "t1"
left join lateral (
  select coalesce(json_agg("x4"."v"
      order by "x4"."s0"), '[]') as "v"
  from (
    select json_build_array("t3"."collection", json_build_array("t3"."collection", "t3"."item", case when "t3"."collection" = ? then (
          select json_build_array("t5"."title")
          from "headings" as "t5"
          where "t3"."collection" = ? and "t5"."id" = cast("t3"."item" as integer)) when "t3"."collection" = ? then (
          select json_build_array("t6"."body")
          from "texts" as "t6"
          where "t3"."collection" = ? and "t6"."id" = cast("t3"."item" as integer)) end)) as "v", "t3"."sort" as "s0"
    from "articles_sections" as "t3"
    where "t3"."articles_id" = "t1"."id"
    order by "t3"."sort"
    limit ?) as "x4") as "l2" on true
order by "t1"."id"
limit ?
-- values: ["headings","headings","texts","texts",100,100]
