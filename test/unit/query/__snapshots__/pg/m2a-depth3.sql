select "l2"."v" as "c0"
from "authors" as "t1"
left join lateral (
  select coalesce(json_agg("x4"."v"
      order by "x4"."s0"), '[]') as "v"
  from (
    select json_build_array("l5"."v") as "v", "t3"."id" as "s0"
    from "articles" as "t3"
    left join lateral (
      select coalesce(json_agg("x7"."v"
          order by "x7"."s0"), '[]') as "v"
      from (
        select json_build_array(json_build_array("t6"."collection", "t6"."item", case when "t6"."collection" = ? then (
              select json_build_array("t8"."title")
              from "headings" as "t8"
              where "t6"."collection" = ? and "t8"."id" = cast("t6"."item" as integer)) end)) as "v", "t6"."sort" as "s0"
        from "articles_sections" as "t6"
        where "t6"."articles_id" = "t3"."id"
        order by "t6"."sort"
        limit ?) as "x7") as "l5" on true
    where "t3"."author" = "t1"."id"
    order by "t3"."id"
    limit ?) as "x4") as "l2" on true
order by "t1"."id"
limit ?
-- values: ["headings","headings",100,100,100]
