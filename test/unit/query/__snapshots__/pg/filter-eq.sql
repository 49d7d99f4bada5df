select "t1"."id" as "c0"
from "articles" as "t1"
where "t1"."status" = ?
order by "t1"."id"
limit ?
-- values: ["published",100]
