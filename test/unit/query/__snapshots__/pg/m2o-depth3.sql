select "t1"."id" as "c0", (
  select json_build_array((
      select json_build_array((
          select json_build_array("t4"."name") as "v"
          from "countries" as "t4"
          where "t4"."id" = "t3"."country")) as "v"
      from "authors" as "t3"
      where "t3"."id" = "t2"."author")) as "v"
  from "articles" as "t2"
  where "t2"."id" = "t1"."article") as "c1"
from "comments" as "t1"
order by "t1"."id"
limit ?
-- values: [100]
