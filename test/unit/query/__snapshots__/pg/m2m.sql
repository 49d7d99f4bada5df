select "t1"."id" as "c0", "l2"."v" as "c1"
from "articles" as "t1"
left join lateral (
  select coalesce(json_agg("x4"."v"
      order by "x4"."s0"), '[]') as "v"
  from (
    select json_build_array((
        select json_build_array("t5"."name") as "v"
        from "categories" as "t5"
        where "t5"."id" = "t3"."categories_id")) as "v", "t3"."id" as "s0"
    from "articles_categories" as "t3"
    where "t3"."articles_id" = "t1"."id"
    order by "t3"."id"
    limit ?) as "x4") as "l2" on true
order by "t1"."id"
limit ?
-- values: [100,100]
