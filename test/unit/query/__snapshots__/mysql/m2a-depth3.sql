select (
  select coalesce(json_arrayagg(json_array((
          select coalesce(json_arrayagg(json_array(json_array(`t3`.`collection`, `t3`.`item`, case when `t3`.`collection` = ? then (
                    select json_array(`t4`.`title`)
                    from `headings` as `t4`
                    where `t3`.`collection` = ? and `t4`.`id` = `t3`.`item`) end))
              order by `t3`.`sort` is null, `t3`.`sort`
              limit ?), json_array())
          from `articles_sections` as `t3`
          where `t3`.`articles_id` = `t2`.`id`))
      order by `t2`.`id`
      limit ?), json_array())
  from `articles` as `t2`
  where `t2`.`author` = `t1`.`id`) as `c0`
from `authors` as `t1`
order by `t1`.`id`
limit ?
-- values: ["headings","headings",100,100,100]
