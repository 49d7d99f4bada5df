select "t1"."id" as "c0", "l2"."v" as "c1"
from "articles" as "t1"
left join lateral (
  select coalesce(json_agg("x4"."v"
      order by "x4"."s0"), '[]') as "v"
  from (
    select json_build_array("t3"."id") as "v", (
      select cast("t5"."data" as text)
      from "articles" as "t5"
      where "t5"."id" = "t3"."article") as "s0"
    from "comments" as "t3"
    where "t3"."article" = "t1"."id"
    order by (
      select cast("t6"."data" as text)
      from "articles" as "t6"
      where "t6"."id" = "t3"."article")
    limit ?) as "x4") as "l2" on true
order by cast("t1"."data" as text) desc
limit ?
-- values: [100,100]
