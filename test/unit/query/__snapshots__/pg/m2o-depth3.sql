select "t1"."id" as "c0", "l2"."v" as "c1"
from "comments" as "t1"
left join lateral (
  select json_build_array("l4"."v") as "v"
  from "articles" as "t3"
  left join lateral (
    select json_build_array("l6"."v") as "v"
    from "authors" as "t5"
    left join lateral (
      select json_build_array("t7"."name") as "v"
      from "countries" as "t7"
      where "t7"."id" = "t5"."country") as "l6" on true
    where "t5"."id" = "t3"."author") as "l4" on true
  where "t3"."id" = "t1"."article") as "l2" on true
order by "t1"."id"
limit ?
-- values: [100]
