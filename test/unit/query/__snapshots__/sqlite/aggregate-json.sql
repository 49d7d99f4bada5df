select "t1"."data" as "c0", count(*) as "c1", count(distinct "t1"."data") as "c2"
from "articles" as "t1"
group by "t1"."data"
order by "c0" nulls last
limit ?
-- values: [100]
