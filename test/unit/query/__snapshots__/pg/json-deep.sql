select cast(array_to_json(array(
      select "x2"
      from (
        select "t1"."id" as "id", array(
          select "x4"
          from (
            select "t3"."id" as "id", array(
              select "x6"
              from (
                select "t5"."text" as "text", (
                  select "x8"
                  from (
                    select "t7"."name" as "name"
                    from "authors" as "t7"
                    where "t7"."id" = "t5"."author") as "x8") as "writer"
                from "comments" as "t5"
                where "t5"."article" = "t3"."id" and ("t5"."text" is not null and "t5"."text" <> '')
                order by "t5"."id" desc
                limit ?) as "x6") as "notes", array(
              select "x10"
              from (
                select (
                  select "x12"
                  from (
                    select "t11"."name" as "name"
                    from "categories" as "t11"
                    where "t11"."id" = "t9"."categories_id" and "t11"."name" <> ?) as "x12") as "categories_id"
                from "articles_categories" as "t9"
                where "t9"."articles_id" = "t3"."id"
                order by "t9"."id"
                limit ?) as "x10") as "categories"
            from "articles" as "t3"
            where "t3"."author" = "t1"."id" and "t3"."status" = ?
            order by "t3"."views" desc, (
              select "t13"."name"
              from "authors" as "t13"
              where "t13"."id" = "t3"."author")
            limit ?
            offset ?) as "x4") as "posts"
        from "authors" as "t1"
        order by "t1"."id"
        limit ?) as "x2")) as text) as "json"
-- values: [2,"x",100,"published",3,1,100]
