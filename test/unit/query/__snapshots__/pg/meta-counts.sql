select (
  select count(*)
  from "articles" as "t1") as "c0", (
  select count(*)
  from "articles" as "t2"
  where ("t2"."status" = ? and ("t2"."status" ilike ? or "t2"."title" ilike ? or "t2"."body" ilike ?))) as "c1"
-- values: ["published","%a%","%a%","%a%"]
