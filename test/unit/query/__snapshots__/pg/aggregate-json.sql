select cast("t1"."data" as text) as "c0", count(*) as "c1", count(distinct cast("t1"."data" as text)) as "c2"
from "articles" as "t1"
group by cast("t1"."data" as text)
order by "c0"
limit ?
-- values: [100]
