select cast(json_build_object('id', "t1"."id", 'author', (
      select json_build_object('name', "t2"."name") as "v"
      from "authors" as "t2"
      where "t2"."id" = "t1"."author"), 'comments', "l3"."v", 'categories', "l4"."v") as text) as "json"
from "articles" as "t1"
left join lateral (
  select coalesce(json_agg("x6"."v"
      order by "x6"."s0" desc), '[]') as "v"
  from (
    select json_build_object('text', "t5"."text", 'author', (
        select json_build_object('name', "t7"."name") as "v"
        from "authors" as "t7"
        where "t7"."id" = "t5"."author")) as "v", "t5"."id" as "s0"
    from "comments" as "t5"
    where "t5"."article" = "t1"."id"
    order by "t5"."id" desc
    limit ?) as "x6") as "l3" on true
left join lateral (
  select coalesce(json_agg("x9"."v"
      order by "x9"."s0"), '[]') as "v"
  from (
    select "t8"."id" as "v", "t8"."id" as "s0"
    from "articles_categories" as "t8"
    where "t8"."articles_id" = "t1"."id"
    order by "t8"."id"
    limit ?) as "x9") as "l4" on true
order by "t1"."id"
limit ?
-- values: [2,100,100]
