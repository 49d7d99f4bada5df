select "t1"."title" as "c0", "l2"."v" as "c1"
from "articles" as "t1"
left join lateral (
  select json_build_array("t3"."name") as "v"
  from "authors" as "t3"
  where "t3"."id" = "t1"."author") as "l2" on true
order by "t1"."id"
limit ?
-- values: [100]
