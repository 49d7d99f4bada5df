select "t1"."id" as "c0"
from "articles" as "t1"
where ("t1"."status" ilike ? escape '!' or "t1"."title" ilike ? escape '!' or "t1"."body" ilike ? escape '!')
order by "t1"."id"
limit ?
-- values: ["%hello%","%hello%","%hello%",100]
