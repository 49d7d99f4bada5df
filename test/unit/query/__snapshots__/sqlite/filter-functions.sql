select "t1"."id" as "c0"
from "articles" as "t1"
where (cast(strftime('%Y', "t1"."published") as integer) = ? and (
    select count(*)
    from "comments" as "t2"
    where "t2"."article" = "t1"."id") > ? and cast(strftime('%w', "t1"."created") as integer) in (?, ?) and (case when "t1"."tags" is null or "t1"."tags" = '' then 0 else length("t1"."tags") - length(replace("t1"."tags", ',', '')) + 1 end) >= ?)
order by "t1"."id"
limit ?
-- values: [2024,1,0,6,2,100]
