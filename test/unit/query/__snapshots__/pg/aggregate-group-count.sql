select (
  select count(*)
  from "comments" as "t2"
  where "t2"."article" = "t1"."id" and ("t2"."text" is not null and "t2"."text" <> '')) as "c0", count(*) as "c1"
from "articles" as "t1"
where "t1"."status" = ?
group by 1
order by "c0"
limit ?
-- values: ["published",100]
