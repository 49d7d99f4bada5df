select "t1"."id" as "c0"
from "articles" as "t1"
where ("t1"."status" ilike ? or "t1"."title" ilike ? or "t1"."body" ilike ?)
order by "t1"."id"
limit ?
-- values: ["%hello%","%hello%","%hello%",100]
