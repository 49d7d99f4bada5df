select "t1"."title" as "c0", (
  select json_build_array("t2"."name") as "v"
  from "authors" as "t2"
  where "t2"."id" = "t1"."author") as "c1"
from "articles" as "t1"
order by "t1"."id"
limit ?
-- values: [100]
