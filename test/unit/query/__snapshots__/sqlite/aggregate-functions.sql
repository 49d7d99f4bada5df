select count(distinct "t1"."status") as "c0", avg(cast("t1"."views" as real)) as "c1", min("t1"."views") as "c2", cast(max("t1"."big") as text) as "c3", count(*) as "c4", sum(distinct "t1"."views") as "c5", avg(distinct cast("t1"."rating" as real)) as "c6"
from "articles" as "t1"
limit ?
-- values: [100]
