select "l2"."v" as "c0"
from "articles" as "t1"
left join lateral (
  select coalesce(json_agg("x4"."v"
      order by "x4"."s0"), '[]') as "v"
  from (
    select "t3"."id" as "v", "t3"."id" as "s0"
    from "comments" as "t3"
    where "t3"."article" = "t1"."id"
    order by "t3"."id"
    limit ?) as "x4") as "l2" on true
order by "t1"."id"
limit ?
-- values: [100,100]
