select "t1"."id" as "c0"
from "articles" as "t1"
order by (
  select min((
      select "t3"."name"
      from "categories" as "t3"
      where "t3"."id" = "t2"."categories_id"))
  from "articles_categories" as "t2"
  where "t2"."articles_id" = "t1"."id") nulls last, (
  select max((
      select "t5"."title"
      from "headings" as "t5"
      where "t4"."collection" = ? and "t5"."id" = "t4"."item"))
  from "articles_sections" as "t4"
  where "t4"."articles_id" = "t1"."id") desc nulls first, (
  select max("t6"."id")
  from "comments" as "t6"
  where "t6"."article" = "t1"."id") desc nulls first
limit ?
-- values: ["headings",100]
