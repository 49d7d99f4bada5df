select "t1"."id" as "c0"
from "comments" as "t1"
where exists (
  select 1
  from "articles" as "t2"
  where "t2"."id" = "t1"."article" and exists (
    select 1
    from "authors" as "t3"
    where "t3"."id" = "t2"."author" and exists (
      select 1
      from "countries" as "t4"
      where "t4"."id" = "t3"."country" and "t4"."code" = ?)))
order by "t1"."id"
limit ?
-- values: ["NL",100]
