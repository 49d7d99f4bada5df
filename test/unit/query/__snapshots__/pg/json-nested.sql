select cast(array_to_json(array(
      select "x2"
      from (
        select "t1"."id" as "id", (
          select "x4"
          from (
            select "t3"."name" as "name"
            from "authors" as "t3"
            where "t3"."id" = "t1"."author") as "x4") as "author", array(
          select "x6"
          from (
            select "t5"."text" as "text", (
              select "x8"
              from (
                select "t7"."name" as "name"
                from "authors" as "t7"
                where "t7"."id" = "t5"."author") as "x8") as "author"
            from "comments" as "t5"
            where "t5"."article" = "t1"."id"
            order by "t5"."id" desc
            limit ?) as "x6") as "comments", array(
          select "t9"."id"
          from "articles_categories" as "t9"
          where "t9"."articles_id" = "t1"."id"
          order by "t9"."id"
          limit ?) as "categories"
        from "articles" as "t1"
        order by "t1"."id"
        limit ?) as "x2")) as text) as "json"
-- values: [2,100,100]
