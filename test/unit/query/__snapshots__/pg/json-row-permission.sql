select cast(array_to_json(array(
      select "x2"
      from (
        select "t1"."id" as "id", array(
          select "x4"
          from (
            select "t3"."text" as "text"
            from "comments" as "t3"
            where "t3"."article" = "t1"."id" and ("t3"."text" is not null and "t3"."text" <> '')
            order by "t3"."id"
            limit ?) as "x4") as "comments", (
          select "x6"
          from (
            select array(
              select "x8"
              from (
                select "t7"."title" as "title"
                from "articles" as "t7"
                where "t7"."author" = "t5"."id" and "t7"."status" = ?
                order by "t7"."id"
                limit ?) as "x8") as "articles"
            from "authors" as "t5"
            where "t5"."id" = "t1"."author") as "x6") as "author"
        from "articles" as "t1"
        where "t1"."status" = ?
        order by "t1"."id"
        limit ?) as "x2")) as text) as "json"
-- values: [100,"published",100,"published",100]
