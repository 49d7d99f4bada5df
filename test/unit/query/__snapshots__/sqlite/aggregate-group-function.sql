select cast(strftime('%Y', "t1"."published") as integer) as "c0", "t1"."status" as "c1", count(*) as "c2"
from "articles" as "t1"
where "t1"."views" > ?
group by cast(strftime('%Y', "t1"."published") as integer), "t1"."status"
order by "c2" desc
limit ?
-- values: [0,5]
