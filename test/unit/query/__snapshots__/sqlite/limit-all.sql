select "t1"."id" as "c0"
from "articles" as "t1"
order by "t1"."id"
-- values: []
