select "t1"."id" as "c0", cast(strftime('%Y', "t1"."published") as integer) as "c1", (
  select count(*)
  from "comments" as "t2"
  where "t2"."article" = "t1"."id") as "c2", coalesce(json_array_length("t1"."data"), 0) as "c3"
from "articles" as "t1"
order by "t1"."id"
limit ?
-- values: [100]
