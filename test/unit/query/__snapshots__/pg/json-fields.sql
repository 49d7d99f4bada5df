select cast(coalesce(json_agg("x2"."v"
      order by "x2"."s0" desc), '[]') as text) as "json"
from (
  select json_build_object('id', "t1"."id", 'title', "t1"."title", 'rating', cast("t1"."rating" as text), 'big', cast("t1"."big" as text), 'featured', "t1"."featured", 'published_on', cast("t1"."published_on" as text), 'published', (to_char("t1"."published" , 'YYYY-MM-DD"T"HH24:MI:SS') || case when to_char("t1"."published" , 'MS') = '000' then '' else '.' || to_char("t1"."published" , 'MS') end), 'created', to_char("t1"."created" at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'starts', cast("t1"."starts" as text), 'tags', (case when cast("t1"."tags" as text) = '' then cast('[]' as json) else to_json(string_to_array("t1"."tags", ',')) end), 'secret', (case when "t1"."secret" is null then null else '**********' end)) as "v", "t1"."created" as "s0"
  from "articles" as "t1"
  order by "t1"."created" desc
  limit ?) as "x2"
-- values: [100]
