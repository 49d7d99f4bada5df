select "l2"."v" as "c0"
from "articles" as "t1"
left join lateral (
  select coalesce(json_agg("x4"."v"
      order by "x4"."s0"), '[]') as "v"
  from (
    select json_build_array("t3"."item") as "v", "t3"."sort" as "s0"
    from "articles_sections" as "t3"
    where "t3"."articles_id" = "t1"."id"
    order by "t3"."sort"
    limit ?) as "x4") as "l2" on true
order by "t1"."id"
limit ?
-- values: [100,100]
