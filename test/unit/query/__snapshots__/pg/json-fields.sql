select cast(json_build_object('id', "t1"."id", 'title', "t1"."title", 'rating', cast("t1"."rating" as text), 'big', cast("t1"."big" as text), 'featured', "t1"."featured", 'published_on', cast("t1"."published_on" as text), 'published', (to_char("t1"."published" , 'YYYY-MM-DD"T"HH24:MI:SS') || case when to_char("t1"."published" , 'MS') = '000' then '' else '.' || to_char("t1"."published" , 'MS') end), 'created', to_char("t1"."created" at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'starts', cast("t1"."starts" as text), 'tags', (case when cast("t1"."tags" as text) = '' then cast('[]' as json) else to_json(string_to_array("t1"."tags", ',')) end), 'secret', (case when "t1"."secret" is null then null else '**********' end)) as text) as "json"
from "articles" as "t1"
order by "t1"."created" desc
limit ?
-- values: [100]
