select "t1"."id" as "c0"
from "articles" as "t1"
order by "t1"."views" desc nulls first, (
  select "t2"."name"
  from "authors" as "t2"
  where "t2"."id" = "t1"."author") nulls last, cast(strftime('%Y', "t1"."published") as integer) nulls last
limit ?
-- values: [100]
