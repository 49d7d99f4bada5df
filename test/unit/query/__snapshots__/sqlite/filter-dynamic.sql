select "t1"."id" as "c0"
from "articles" as "t1"
where ("t1"."created" <= ? and "t1"."published" > ? and "t1"."title" = (
    select "u2"."name"
    from "svc_roles" as "u2"
    where "u2"."id" = (
      select "u3"."role"
      from "svc_users" as "u3"
      where "u3"."id" = ?)))
order by "t1"."id"
limit ?
-- values: ["2024-04-30 12:00:00","2024-05-01 12:00:00","00000000-0000-4000-8000-000000000001",100]
