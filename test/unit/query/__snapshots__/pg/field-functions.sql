select "t1"."id" as "c0", cast(floor(extract(year
      from "t1"."published")) as integer) as "c1", (
  select count(*)
  from "comments" as "t2"
  where "t2"."article" = "t1"."id") as "c2", coalesce((case when json_typeof(cast("t1"."data" as json)) = 'array' then json_array_length(cast("t1"."data" as json)) else 0 end), 0) as "c3"
from "articles" as "t1"
order by "t1"."id"
limit ?
-- values: [100]
