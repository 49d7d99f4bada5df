select "t1"."id" as "c0"
from "articles" as "t1"
where exists (
  select 1
  from "comments" as "t2"
  where "t2"."article" = "t1"."id" and "t2"."text" like ?)
order by "t1"."id"
limit ?
-- values: ["%good%",100]
