select "t1"."id" as "c0"
from "articles" as "t1"
where ("t1"."author" is not null and exists (
    select 1
    from "authors" as "t2"
    where "t2"."id" = "t1"."author" and "t2"."name" = ?))
order by "t1"."id"
limit ?
-- values: ["Ann",100]
