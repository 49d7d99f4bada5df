select cast(array_to_json(array(
      select "x2"
      from (
        select "t1"."id" as "id", "t1"."title" as "title", cast("t1"."rating" as text) as "rating", cast("t1"."big" as text) as "big", "t1"."featured" as "featured", cast("t1"."published_on" as text) as "published_on", (to_char("t1"."published" , 'YYYY-MM-DD"T"HH24:MI:SS') || case when to_char("t1"."published" , 'MS') = '000' then '' else '.' || to_char("t1"."published" , 'MS') end) as "published", to_char("t1"."created" at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "created", cast("t1"."starts" as text) as "starts", (case when cast("t1"."tags" as text) = '' then cast('[]' as json) else to_json(string_to_array("t1"."tags", ',')) end) as "tags", (case when "t1"."secret" is null then null else '**********' end) as "secret"
        from "articles" as "t1"
        order by "t1"."created" desc
        limit ?) as "x2")) as text) as "json"
-- values: [100]
