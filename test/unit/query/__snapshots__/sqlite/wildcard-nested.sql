select "t1"."id" as "c0", (
  select json_array("t2"."id", "t2"."status", "t2"."title", "t2"."body", "t2"."views", cast("t2"."rating" as text), cast("t2"."big" as text), "t2"."featured", "t2"."published_on", "t2"."published", "t2"."created", "t2"."starts", "t2"."data", "t2"."tags", "t2"."uid", "t2"."secret", "t2"."author", (
      select coalesce(json_group_array("x4"."v"
          order by "x4"."s0"), json_array()) as "v"
      from (
        select "t3"."id" as "v", "t3"."id" as "s0"
        from "comments" as "t3"
        where "t3"."article" = "t2"."id"
        order by "t3"."id"
        limit ?) as "x4"), (
      select coalesce(json_group_array("x6"."v"
          order by "x6"."s0"), json_array()) as "v"
      from (
        select "t5"."id" as "v", "t5"."id" as "s0"
        from "articles_categories" as "t5"
        where "t5"."articles_id" = "t2"."id"
        order by "t5"."id"
        limit ?) as "x6"), (
      select coalesce(json_group_array("x8"."v"
          order by "x8"."s0" nulls last), json_array()) as "v"
      from (
        select "t7"."id" as "v", "t7"."sort" as "s0"
        from "articles_sections" as "t7"
        where "t7"."articles_id" = "t2"."id"
        order by "t7"."sort" nulls last
        limit ?) as "x8")) as "v"
  from "articles" as "t2"
  where "t2"."id" = "t1"."article") as "c1", (
  select json_array("t9"."id", "t9"."name", "t9"."email", "t9"."country", (
      select coalesce(json_group_array("x11"."v"
          order by "x11"."s0"), json_array()) as "v"
      from (
        select "t10"."id" as "v", "t10"."id" as "s0"
        from "articles" as "t10"
        where "t10"."author" = "t9"."id"
        order by "t10"."id"
        limit ?) as "x11")) as "v"
  from "authors" as "t9"
  where "t9"."id" = "t1"."author") as "c2", "t1"."text" as "c3", "t1"."sort" as "c4"
from "comments" as "t1"
order by "t1"."id"
limit ?
-- values: [100,100,100,100,100]
