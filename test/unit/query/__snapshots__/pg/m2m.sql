select "t1"."id" as "c0", "l2"."v" as "c1"
from "articles" as "t1"
left join lateral (
  select coalesce(json_agg("x4"."v"
      order by "x4"."s0"), '[]') as "v"
  from (
    select json_build_array("l5"."v") as "v", "t3"."id" as "s0"
    from "articles_categories" as "t3"
    left join lateral (
      select json_build_array("t6"."name") as "v"
      from "categories" as "t6"
      where "t6"."id" = "t3"."categories_id") as "l5" on true
    where "t3"."articles_id" = "t1"."id"
    order by "t3"."id"
    limit ?) as "x4") as "l2" on true
order by "t1"."id"
limit ?
-- values: [100,100]
