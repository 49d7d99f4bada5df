select "t1"."id" as "c0"
from "articles" as "t1"
where (lower("t1"."status") like lower(?) escape '!' or lower("t1"."title") like lower(?) escape '!' or lower("t1"."body") like lower(?) escape '!')
order by "t1"."id"
limit ?
-- values: ["%hello%","%hello%","%hello%",100]
