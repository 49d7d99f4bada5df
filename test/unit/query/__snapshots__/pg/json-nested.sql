select cast(array_to_json(array(
      select "x2"
      from (
        select "t1"."id" as "id", (
          select json_build_object('name', "t3"."name") as "v"
          from "authors" as "t3"
          where "t3"."id" = "t1"."author") as "author", "l4"."v" as "comments", "l5"."v" as "categories"
        from "articles" as "t1"
        left join lateral (
          select coalesce(json_agg("x7"."v"
              order by "x7"."s0" desc), '[]') as "v"
          from (
            select json_build_object('text', "t6"."text", 'author', (
                select json_build_object('name', "t8"."name") as "v"
                from "authors" as "t8"
                where "t8"."id" = "t6"."author")) as "v", "t6"."id" as "s0"
            from "comments" as "t6"
            where "t6"."article" = "t1"."id"
            order by "t6"."id" desc
            limit ?) as "x7") as "l4" on true
        left join lateral (
          select coalesce(json_agg("x10"."v"
              order by "x10"."s0"), '[]') as "v"
          from (
            select "t9"."id" as "v", "t9"."id" as "s0"
            from "articles_categories" as "t9"
            where "t9"."articles_id" = "t1"."id"
            order by "t9"."id"
            limit ?) as "x10") as "l5" on true
        order by "t1"."id"
        limit ?) as "x2")) as text) as "json"
-- values: [2,100,100]
