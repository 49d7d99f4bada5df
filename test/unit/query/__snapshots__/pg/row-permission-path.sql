select "t1"."id" as "c0"
from "comments" as "t1"
where (("t1"."text" is not null and "t1"."text" <> '') and exists (
    select 1
    from "articles" as "t2"
    where "t2"."id" = "t1"."article" and ("t2"."status" = ? and "t2"."title" like ?)))
order by (
  select "t3"."title"
  from "articles" as "t3"
  where "t3"."id" = "t1"."article" and "t3"."status" = ?)
limit ?
-- values: ["published","%x%","published",100]
