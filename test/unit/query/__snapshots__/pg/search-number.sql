select "t1"."id" as "c0"
from "articles" as "t1"
where ("t1"."status" = ? and ("t1"."id" = ? or "t1"."status" ilike ? or "t1"."title" ilike ? or "t1"."body" ilike ? or "t1"."views" = ? or "t1"."rating" = ? or "t1"."big" = ? or "t1"."author" = ?))
order by "t1"."id"
limit ?
-- values: ["published",5,"%5%","%5%","%5%",5,"5",5,5,100]
