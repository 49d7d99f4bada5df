select "t1"."id" as "c0", (
  select count(*)
  from "comments" as "t2"
  where "t2"."article" = "t1"."id" and ("t2"."text" is not null and "t2"."text" <> '')) as "c1"
from "articles" as "t1"
where ("t1"."status" = ? and not exists (
    select 1
    from "comments" as "t3"
    where "t3"."article" = "t1"."id" and (("t3"."text" is not null and "t3"."text" <> '') and "t3"."text" = ?)))
order by "t1"."id"
limit ?
-- values: ["published","spam",100]
