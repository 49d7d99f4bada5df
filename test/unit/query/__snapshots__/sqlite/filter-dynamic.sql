select "t1"."id" as "c0"
from "articles" as "t1"
where ((case when typeof("t1"."created") in ('integer', 'real') then strftime('%Y-%m-%d %H:%M:%f', "t1"."created" / 1000.0, 'unixepoch') else strftime('%Y-%m-%d %H:%M:%f', "t1"."created") end) <= ? and (case when typeof("t1"."published") in ('integer', 'real') then strftime('%Y-%m-%d %H:%M:%f', "t1"."published" / 1000.0, 'unixepoch') else strftime('%Y-%m-%d %H:%M:%f', "t1"."published") end) > ? and "t1"."title" = (
    select "u2"."name"
    from "svc_roles" as "u2"
    where "u2"."id" = (
      select "u3"."role"
      from "svc_users" as "u3"
      where "u3"."id" = ?)))
order by "t1"."id"
limit ?
-- values: ["2024-04-30 12:00:00.000","2024-05-01 12:00:00.000","00000000-0000-4000-8000-000000000001",100]
