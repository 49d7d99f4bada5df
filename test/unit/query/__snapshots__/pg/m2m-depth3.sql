select "t1"."id" as "c0", "l2"."v" as "c1"
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
        select json_build_array((
            select json_build_array("t8"."name") as "v"
            from "categories" as "t8"
            where "t8"."id" = "t6"."categories_id")) as "v", "t6"."id" as "s0"
        from "articles_categories" as "t6"
        where "t6"."articles_id" = "t3"."id"
        order by "t6"."id"
        limit ?) as "x7") as "l5" on true
    where "t3"."author" = "t1"."id"
    order by "t3"."id"
    limit ?) as "x4") as "l2" on true
order by "t1"."id"
limit ?
-- values: [100,100,100]
