select "t1"."id" as "c0"
from "articles" as "t1"
where ("t1"."status" = ? or ("t1"."views" > ? and "t1"."title" ilike ?))
order by "t1"."id"
limit ?
-- values: ["draft",10,"%100\\%%",100]
